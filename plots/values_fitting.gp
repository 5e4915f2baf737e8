# title: Fitting accesses with a fixed width (Zhang, Figure 6.5)
# empty: no value profile stored (trace-values --db)
# values_fitting.gp: the share of accesses whose value fits a fixed width L
# once its redundant prefix (sign extension, or the prefix shared with its
# address) is dropped, one line per run. The dissertation finds 69-99% at
# 16 bits, and more than half of the accesses not fitting at 4.
# Data: plot_values_fitting.sql.
load plotdir . "/common.gp"
set xlabel "fixed width L (bits)"
set ylabel "fitting accesses (%)"
set xrange [0:68]
set xtics 4
set format x "%g"
set yrange [0:102]
set key outside right bottom vertical noenhanced title key_title
set rmargin 44
plot for [i = 1:words(labels)] datafile using 2:(column("color") == i ? $3 : NaN) \
     with linespoints pt 7 ps 0.8 lw 2 lc rgb colour_name(i) \
     title (in_key(i) ? word(labels, i) : "")
