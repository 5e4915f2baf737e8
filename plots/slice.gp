# title: Dynamic slice sizes: precise and approximate
# empty: no slice in this run (trace-slice --db)
# slice.gp: section 5.3's comparison as bars: the source lines in the
# precise dynamic slice (Agrawal and Horgan's approach 3) and in the two
# approximate ones (approach 2, executed edges; approach 1, executed
# nodes) of the run's last slicing request.
# Data: plot_slice.sql.
load plotdir . "/common.gp"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.6
set xtics noenhanced scale 0
set ylabel "source lines"
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
plot datafile using 2:xtic(1) lc rgb "#1f77b4" notitle, \
     "" using ($0):2:2 with labels offset 0,1 notitle
