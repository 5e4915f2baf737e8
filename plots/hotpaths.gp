# title: Hot subpaths by cost
# empty: no hot subpaths in this run
# hotpaths.gp: Larus's hot subpaths of one run (trace-wpp --db), most
# costly first; cost is length x executions. Labels: thread, rank, the
# first and the last block of the subpath (function:line).
# Data: plot_hotpaths.sql.
load plotdir . "/common.gp"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.7
set xtics rotate by -35 left noenhanced scale 0
set ylabel "cost (blocks x executions)"
set xlabel "hot subpath"
set format y "%.1s%c"
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set key off
set bmargin 12
set rmargin 30
plot datafile using 2:xtic(1) lc rgb "#d62728"
