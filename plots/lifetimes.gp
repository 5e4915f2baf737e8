# title: Heap object lifetimes
# empty: no heap objects in this run
# lifetimes.gp: heap object lifetimes over time, one lane per group (the
# hottest group at the bottom). Each object is a horizontal line from its
# allocation to its free; within a lane objects stack in allocation order,
# so a group whose objects all live to the end shows as a staircase of
# long lines, a group of temporaries as short dashes. Red: never freed.
# Data: plot_lifetimes.sql.
load plotdir . "/common.gp"
set xlabel "time (instructions executed)"
set ylabel "allocation site (objects in allocation order)"
set grid noytics
set key outside top center horizontal
nlanes = words(labels)
set yrange [0:nlanes]
# One tic per lane, named by its allocation site, and a line between lanes.
tics = ""
do for [i = 1:nlanes] {
    tics = tics . sprintf('%s"%s" %g', i > 1 ? ", " : "", word(labels, i), i - 0.5)
    set arrow from graph 0, first i to graph 1, first i nohead lc rgb "#bbbbbb" dt 2
}
eval "set ytics scale 0 noenhanced (" . tics . ")"
plot datafile using 3:5:($4 - $3):(0):($6 > 0 ? 0xd62728 : 0x1f77b4) \
         with vectors nohead lw 1.5 lc rgb variable notitle, \
     NaN with lines lw 3 lc rgb "#1f77b4" title "freed", \
     NaN with lines lw 3 lc rgb "#d62728" title "never freed"
