"""Marker sheets: a layout's ArUco markers printed at true size, with cutting guides.

Each marker is drawn with one module of white quiet zone around its black square (the detector needs
it) and a thin dashed cutting line around that; its id and side are printed below. At ``dpi`` dots per
inch, a marker of ``size`` mm is exactly ``size / 25.4 * dpi`` dots; PDF and PNG files carry the
resolution, so printing at 100 % gives millimetre-true markers.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from calibration.layout import Layout
from calibration.plan import marker_image

A4_MM = (210.0, 297.0)
MARGIN_MM = 12.0
GAP_MM = 8.0


def mm_to_px(mm: float, dpi: int) -> int:
    return round(mm / 25.4 * dpi)


def marker_sheets(layout: Layout, dpi: int = 300, page_mm: tuple[float, float] = A4_MM) -> list[Image.Image]:
    """Pages (white, ``page_mm``) holding every marker of ``layout`` at true size."""
    pages: list[Image.Image] = []
    page_w, page_h = mm_to_px(page_mm[0], dpi), mm_to_px(page_mm[1], dpi)
    font = ImageFont.load_default(size=max(10, mm_to_px(3.0, dpi)))
    x = y = mm_to_px(MARGIN_MM, dpi)
    row_h = 0
    page = draw = None
    for m in layout.markers:
        side = mm_to_px(m.size, dpi)
        quiet = mm_to_px(m.size / 6, dpi)
        cell_w = side + 2 * quiet
        cell_h = cell_w + mm_to_px(6, dpi)
        if side < 6 * 2:
            raise ValueError(f"--dpi: {dpi} dpi is too coarse for a {m.size:g} mm marker")
        if page is not None and x + cell_w > page_w - mm_to_px(MARGIN_MM, dpi):
            x, y, row_h = mm_to_px(MARGIN_MM, dpi), y + row_h + mm_to_px(GAP_MM, dpi), 0
        if page is None or y + cell_h > page_h - mm_to_px(MARGIN_MM, dpi):
            page = Image.new("L", (page_w, page_h), 255)
            draw = ImageDraw.Draw(page)
            pages.append(page)
            x = y = mm_to_px(MARGIN_MM, dpi)
            row_h = 0
            draw.text((x, mm_to_px(4, dpi)), f"{layout.name}: ArUco DICT_4X4_50 markers, print at 100 % "
                                             f"({dpi} dpi); cut on the dashed lines", fill=0, font=font)
        pattern = Image.fromarray(marker_image(m.id, side))
        page.paste(pattern, (x + quiet, y + quiet))
        _dashed_rect(draw, (x, y, x + cell_w - 1, y + cell_w - 1), mm_to_px(2, dpi), max(1, dpi // 150))
        draw.text((x, y + cell_w + mm_to_px(1.5, dpi)), f"#{m.id}  {m.size:g} mm", fill=0, font=font)
        x += cell_w + mm_to_px(GAP_MM, dpi)
        row_h = max(row_h, cell_h)
    return pages


def _dashed_rect(draw: ImageDraw.ImageDraw, box, dash: int, width: int) -> None:
    x0, y0, x1, y1 = box
    for a, b, fixed, horizontal in ((x0, x1, y0, True), (x0, x1, y1, True), (y0, y1, x0, False), (y0, y1, x1, False)):
        for s in range(a, b, 2 * dash):
            e = min(b, s + dash)
            draw.line([(s, fixed), (e, fixed)] if horizontal else [(fixed, s), (fixed, e)], fill=128, width=width)


def save_sheets(pages: list[Image.Image], out: str | Path, dpi: int) -> list[Path]:
    """Write a PDF (all pages) or PNG files (``out``, then ``out-2.png``...) carrying their resolution."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".pdf":
        pages[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=pages[1:])
        return [out]
    if out.suffix.lower() != ".png":
        raise ValueError(f"{out}: expected a .pdf or .png file name")
    paths = []
    for i, page in enumerate(pages):
        path = out if i == 0 else out.with_name(f"{out.stem}-{i + 1}.png")
        page.save(path, dpi=(dpi, dpi))
        paths.append(path)
    return paths
