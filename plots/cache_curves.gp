# title: Miss-ratio curves
# empty: no miss-ratio curves in this run (trace-cache --db)
# cache_curves.gp: miss-ratio curves of fully associative LRU caches, from
# trace-cache's stack distances: the whole run and its groups with the most
# accesses, cache size (log scale) against miss ratio. A knee is the
# working set of that group; a flat tail is its cold misses.
# Data: plot_cache_curves.sql.
load plotdir . "/common.gp"
set logscale x 2
set format x "%.0b%B"
set xlabel "cache size (bytes, fully associative LRU)"
set ylabel "miss ratio"
set yrange [0:1.02]
set key outside right top vertical noenhanced title key_title
set rmargin 44
plot for [i = 1:words(labels)] datafile using 2:(column("color") == i ? $3 : NaN) \
     with linespoints pt 7 ps 0.6 lw 2 lc rgb colour_name(i) \
     title (in_key(i) ? word(labels, i) : "")
