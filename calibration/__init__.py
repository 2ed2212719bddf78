"""Board layouts, camera and colour calibration, marker sheets and stored calibration files.

Data types here (layouts, calibrations) are what `vision` reads frames against.
"""

from calibration.layout import Layout, LayoutError, Marker, Zone, default_layouts, load_layout

__all__ = ["Layout", "LayoutError", "Marker", "Zone", "default_layouts", "load_layout"]
