# title: Required bits with a fixed width (Zhang, Figure 6.4)
# empty: no value profile stored (trace-values --db)
# values_bits.gp: the bits all values need when each is stored in a fixed
# width L (L bits when it fits without its redundant prefix, its whole word
# otherwise; the word when L is as wide), against every value in its word
# (100%), one line per run. The dissertation's minimum lies at 4, 8 or 16
# bits and the curve grows almost linearly past 16.
# Data: plot_values_bits.sql.
load plotdir . "/common.gp"
set xlabel "fixed width L (bits)"
set ylabel "required bits (% of the words)"
set xrange [0:68]
set xtics 4
set format x "%g"
set yrange [0:*]
set key outside right top vertical noenhanced title key_title
set rmargin 44
plot for [i = 1:words(labels)] datafile using 2:(column("color") == i ? $3 : NaN) \
     with linespoints pt 7 ps 0.8 lw 2 lc rgb colour_name(i) \
     title (in_key(i) ? word(labels, i) : "")
