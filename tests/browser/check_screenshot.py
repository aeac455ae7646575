#!/usr/bin/env python3
"""Fails unless a screenshot has content: many distinct colours, not one flat page."""
import sys

from PIL import Image  # Debian's python3-pil

image = Image.open(sys.argv[1]).convert("RGB")
colours = image.getcolors(maxcolors=1 << 20) or []
width, height = image.size
# A blank or failed page has a handful of colours; a drawn report has hundreds
# (text anti-aliasing, node fills, the verdict colours).
if width < 800 or height < 600 or len(colours) < 64:
    print(f"FAIL screenshot: {width}x{height}, {len(colours)} colours: looks blank", file=sys.stderr)
    sys.exit(1)
present = {c for _, c in colours}
# The divergence fill (#ffcdd2) and the matched fill (#e8f5e9) must be on screen.
for name, rgb in {"divergence": (0xFF, 0xCD, 0xD2), "matched": (0xE8, 0xF5, 0xE9)}.items():
    if rgb not in present:
        print(f"FAIL screenshot: no {name} colour #{'%02x%02x%02x' % rgb} on screen", file=sys.stderr)
        sys.exit(1)
print(f"ok screenshot: {width}x{height}, {len(colours)} colours")
