# title: Live RDS instances over time
# empty: no RDS profile in this run (trace-rds --db)
# rds_live.gp: the RDS paper's Figure 6: how many RDS instances are live
# (between their first allocation and their last traversal) at each
# percent of the run.
# Data: plot_rds_live.sql.
load plotdir . "/common.gp"
set xlabel "time (% of the run)"
set ylabel "live RDS instances"
set xrange [0:100]
set yrange [0:*]
plot datafile using 1:2 with steps lw 2 lc rgb "#1f77b4" notitle
