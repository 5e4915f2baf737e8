# title: TWPP compaction step by step
# empty: no TWPP sizes in this run (trace-twpp --db)
# twpp.gp: the dissertation's Tables 3.2-3.3 as bars: the uncompressed
# whole program path (4 bytes per block execution), after duplicate path
# traces are removed per function, after the DBB dictionaries, the
# timestamped traces as written, and the .twpp file but TWPP+; log scale, the
# factor against the uncompressed WPP on top of each bar.
# Data: plot_twpp.sql.
load plotdir . "/common.gp"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.7
set logscale y
set xtics rotate by -25 left noenhanced scale 0
set ylabel "bytes (log scale)"
set format y "%.1s%c"
set offsets 0, 0, graph 0.1, 0
set bmargin 9
plot datafile using 2:xtic(1) lc rgb "#1f77b4" notitle, \
     "" using ($0):2:3 with labels offset 0,1 notitle
