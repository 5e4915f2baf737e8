# title: LEAP stride score per run
# empty: no stride profiles stored (trace-deps and trace-leap --db)
# leap_strides.gp: LEAP's stride score per run (Wu et al., Figure 9): the
# percent of the exact profile's strongly strided instructions LEAP finds,
# beside the percent of accesses its LMADs captured.
# Data: plot_leap_strides.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -25 left noenhanced scale 0
set format x "%s"
set ylabel "%"
set yrange [0:105]
set key inside top right
set bmargin 8
plot datafile using 2:xtic(1) lc rgb "#2ca02c" title "strongly strided found", \
     "" using 3 lc rgb "#7f7f7f" title "accesses captured"
