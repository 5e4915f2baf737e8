#!/usr/bin/env python3
"""png_ink.py FILE.png: the share (in per mille) of the picture's middle
(the centre half in each direction, where every plot draws its data) that
differs from the picture's background colour, the most common one. A blank
plot area (gnuplot's "Terminal canvas area too small to hold plot", a plot
pushed off the canvas by its labels) prints 0. Standard library only: the
PNG is decoded here (8-bit RGB, RGBA, grey or palette, non-interlaced, as
gnuplot's png and pngcairo terminals write them)."""
import collections
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png_ink: %s: not a PNG" % path)
    pos, idat, palette = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = [body[i:i + 3] for i in range(0, n, 3)]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or interlace:
        sys.exit("png_ink: %s: only 8-bit non-interlaced PNGs" % path)
    bpp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    px = lambda row, x: palette[row[x]] if ctype == 3 else row[x * bpp:x * bpp + min(bpp, 3)]
    return w, h, rows, px


def main():
    w, h, rows, px = decode(sys.argv[1])
    colours = collections.Counter(px(rows[y], x) for y in range(0, h, 4) for x in range(0, w, 4))
    background = colours.most_common(1)[0][0]
    ink = total = 0
    for y in range(h // 4, 3 * h // 4, 2):
        for x in range(w // 4, 3 * w // 4, 2):
            total += 1
            ink += px(rows[y], x) != background
    print(1000 * ink // total)


main()
