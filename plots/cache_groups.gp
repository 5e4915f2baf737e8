# title: Simulated cache misses per group
# empty: no cache statistics in this run (trace-cache --db)
# cache_groups.gp: simulated cache misses per group, the groups with the
# most latency first: D1 misses served by a lower level, and misses served
# by memory, stacked. Labels are the allocation site (function:line) or the
# static object's symbol, with the kind of memory.
# Data: plot_cache_groups.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -35 left noenhanced scale 0
set ylabel "misses"
set xlabel "group (allocation site or static object)"
set format y "%.1s%c"
set key inside top right
set bmargin 14
set rmargin 30
plot datafile using 2:xtic(1) lc rgb "#ff7f0e" title "D1 misses served by a lower level", \
     "" using 3 lc rgb "#d62728" title "served by memory"
