# title: TWPP+ compaction step by step
# empty: no TWPP+ sizes in this run (trace-twpp --db)
# twpp_plus.gp: the dissertation's Tables 4.1 and 4.6 as bars: the
# uncompressed trace (4 bytes per block execution, 8 per access address),
# every dependence edge as six 4-byte integers, the edges kept once those
# control flow recovers are dropped, their Sequitur grammars per load point
# and column, TWPP+ whole and the whole .twpp file; log scale, the factor
# against the uncompressed trace on top of each bar.
# Data: plot_twpp_plus.sql.
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
