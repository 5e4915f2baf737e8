# title: Groups by memory traffic
# empty: no accesses in this run
# groups.gp: the groups with the most memory traffic, loads and stores
# stacked, hottest first. Labels are the allocation site (function:line)
# or the static object's symbol, with the kind of memory.
# Data: plot_groups.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -35 left noenhanced scale 0
set ylabel "accesses"
set xlabel "group (allocation site or static object)"
set format y "%.1s%c"
set key inside top right
set bmargin 14
set rmargin 30
plot datafile using 2:xtic(1) lc rgb "#1f77b4" title "loads", \
     "" using 3 lc rgb "#d62728" title "stores"
