"""What chipsim's figures share: the style (tools/chipsim.mplstyle), one colour
and one label per scheme, the colours of stacked parts, and saving a figure
as PNG with a PDF beside it.

The scheme colours are those of the style's colour cycle, at the positions of
SCHEME_ORDER; nothing else in tools/ names a colour for a scheme.
"""
import os
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(f"{os.path.basename(sys.argv[0])}: matplotlib is missing: install Debian's "
             "python3-matplotlib (scripts/install-deps.sh does)")

STYLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chipsim.mplstyle")
plt.style.use(STYLE)

# positions in the style's colour cycle
SCHEME_ORDER = ("cpelide", "hmg", "ideal", "nosync", "viper")
SCHEME_LABELS = {"viper": "VIPER", "cpelide": "CPElide", "hmg": "HMG", "ideal": "Ideal",
                 "nosync": "no-sync"}
CYCLE = plt.rcParams["axes.prop_cycle"].by_key()["color"]


def scheme_color(scheme):
    return CYCLE[SCHEME_ORDER.index(scheme)]


def scheme_label(scheme):
    return SCHEME_LABELS.get(scheme, scheme)


def part_colors(n):
    """Colours of n stacked parts, light at the bottom of the stack to dark at
    the top, so that the stack reads as a sequence (near the cores to far)."""
    cmap = plt.get_cmap("YlGnBu")
    return [cmap(0.12 + 0.83 * i / max(1, n - 1)) for i in range(n)]


def save(fig, png):
    """Write png and, beside it, the same figure as PDF (vector). Each file is
    written under a temporary name and renamed, so that no half-written
    figure is left; the PDF carries no creation date, so that the same data
    give the same file."""
    pdf = os.path.splitext(png)[0] + ".pdf"
    for path, fmt, meta in ((png, "png", {}), (pdf, "pdf", {"CreationDate": None})):
        tmp = f"{os.path.splitext(path)[0]}.tmp.{fmt}"
        fig.savefig(tmp, format=fmt, metadata=meta)
        os.replace(tmp, path)
    plt.close(fig)
    return png, pdf
