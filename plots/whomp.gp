# title: OMSG against RASG, every run
# empty: no trace-whomp sizes stored
# whomp.gp: WHOMP's Figure 5: the object-relative grammars (OMSG, four
# grammars) against the raw address grammar (RASG) of the same accesses,
# bytes of the stored grammars, one pair of bars per run, the ratio on top.
# Below 1 the OMSG is smaller (the paper: 0.78 on average).
# Data: plot_whomp.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 left noenhanced scale 0
set ylabel "bytes of the stored grammars"
set xlabel "run"
set format y "%.1s%c"
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key inside top left
set bmargin 9
plot datafile using 2:xtic(1) lc rgb "#1f77b4" title "OMSG", \
     "" using 3 lc rgb "#7f7f7f" title "RASG", \
     "" using ($0):($2 > $3 ? $2 : $3):4 with labels offset 0,1 notitle
