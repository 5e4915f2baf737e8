# title: Dependence frequency errors against the exact profiler
# empty: no dependences stored in this run (trace-deps and trace-leap --db)
# leap_errors.gp: the error distributions of LEAP and Connors against the
# exact dependence profiler, side by side (Wu et al., Figures 6-8): the
# higher the bars at 0%, the better. Data: plot_leap_errors.sql.
load plotdir . "/common.gp"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics scale 0 noenhanced
set xlabel "frequency error against the exact profiler (10% buckets)"
set ylabel "dependent pairs (%)"
set yrange [0:*]
set format x "%s"
set key inside top left
plot datafile using 2:xtic(1) lc rgb "#1f77b4" title "LEAP", \
     "" using 3 lc rgb "#d62728" title "Connors"
