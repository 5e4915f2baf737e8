# title: Field affinity of a structure (FA, Eq. 7)
# empty: no structure analysed in this run (trace-layout --db)
# subtitle: label
# layout_affinity.gp: the field-affinity matrix of one structure, as
# LWPTool's Figure 7: each cell is FA of two fields (by offset), from 0
# (never in one loop) to 1 (always together); the diagonal is 1. Fields in
# one proposed structure form bright blocks.
# Data: plot_layout_affinity.sql.
load plotdir . "/common.gp"
set view map
set size ratio -1
set cbrange [0:1]
set cblabel "FA"
set palette defined (0 "#ffffff", 0.5 "#9ecae1", 1 "#08519c")
set xlabel "field (offset)"
set ylabel "field (offset)"
set key off
set grid front
set datafile separator "\t"
# one row per pair, in offset order: the cells by their row and column number
stats datafile using 0 nooutput
n = int(sqrt(STATS_records))
# each cell gives its column's offset to the x tics and its row's to the y
# tics (repeats land on the same tic)
plot datafile using (int($0) % n):(int($0) / n):3 with image notitle, \
     "" using (int($0) % n):(int($0) / n):(sprintf("%.2f", $3)):xtic(2):ytic(1) \
        with labels notitle
