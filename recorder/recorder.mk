# The Valgrind tool memrec. (Being written: see the recorder issue.)
recorder:
install-recorder:
