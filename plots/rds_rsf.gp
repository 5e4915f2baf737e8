# title: RDS stability factor (cumulative, weighted by pointer-chasing loads)
# empty: no traversed RDS instances in this run (trace-rds --db)
# rds_rsf.gp: the RDS paper's Figure 7: the share of all pointer-chasing
# loads (y) made in instances whose RSF is at most x. A curve at 100 from
# x = 1 means every traversal happens in structures that do not change
# while they are walked.
# Data: plot_rds_rsf.sql.
load plotdir . "/common.gp"
set xlabel "RDS stability factor"
set ylabel "pointer-chasing loads (cumulative %)"
set xrange [1:10]
set yrange [0:100]
plot datafile using 1:2 with steps lw 2 lc rgb "#1f77b4" notitle, \
     datafile using 1:2 with points pt 7 lc rgb "#1f77b4" notitle
