# title: Redundant stores per instruction (Figure 5.5)
# empty: no redundancy counts in this run (trace-redundancy --db)
# redundancy_stores.gp: the dissertation's Figure 5.5: stores instructions
# classed by the share of their instances that are redundant (0%, 0-10%,
# ..., 90-100%, 100%); per class the share of instructions (unweighted) and
# the share of their instances (weighted).
# Data: plot_redundancy_stores.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 left noenhanced scale 0
set ylabel "% of store instructions / instances"
set xlabel "redundant instances of the instruction"
set yrange [0:105]
set key inside top center
set bmargin 7
plot datafile using 2:xtic(1) lc rgb "#1f77b4" title "instructions", \
     "" using 3 lc rgb "#ff7f0e" title "weighted by instances"
