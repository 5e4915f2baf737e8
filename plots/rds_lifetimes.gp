# title: RDS instance lifetimes (cumulative)
# empty: no RDS instances in this run (trace-rds --db)
# rds_lifetimes.gp: the RDS paper's Figure 5: the cumulative share of RDS
# instances (y) whose lifetime, from the allocation of their first object
# to their last traversal, is at most x % of the run. A curve reaching 100
# only near x = 100 means one instance lives through the whole run.
# Data: plot_rds_lifetimes.sql.
load plotdir . "/common.gp"
set xlabel "lifetime (% of the run)"
set ylabel "instances (cumulative %)"
set xrange [0:100]
set yrange [0:100]
plot datafile using 1:2 with steps lw 2 lc rgb "#1f77b4" notitle
