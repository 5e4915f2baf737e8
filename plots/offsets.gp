# title: Accesses to one group
# empty: no sampled accesses to that group, or to any
# subtitle: group
# offsets.gp: sampled accesses to one group against time. Top: which
# object (serial, in allocation order); bottom: which offset in it. A
# linked-list walk shows as objects visited in link order, always at the
# same few offsets (the fields); an array sweep as a rising line of
# offsets. Colours are instructions (function:line/kind); the legend
# lists the ten with the most samples.
# Data: plot_offsets.sql.
load plotdir . "/common.gp"
set multiplot layout 2,1 title plottitle noenhanced
set title ""
set key outside right top vertical noenhanced title key_title
set xlabel ""
set ylabel "object (serial)"
# from just below 0, so a group of one object still has a y range
set yrange [-0.5:*]
set lmargin 12
set rmargin 44
plot datafile using 1:2:(colour($6)) with points pt 7 ps 0.4 lc rgb variable notitle, \
     for [k = 1:words(keyorder)] NaN with points pt 7 ps 1.2 \
         lc rgb colour_name(key_label(k)) title word(labels, key_label(k))
set xlabel "time (instructions executed)"
set ylabel "offset in object (bytes)"
# a little room so fields at the extremes are not drawn on the border
set offsets graph 0, graph 0, graph 0.05, graph 0.05
set yrange [-0.5:*]
unset key
plot datafile using 1:3:(colour($6)) with points pt 7 ps 0.4 lc rgb variable notitle
unset multiplot
