"""Frame -> reading: board localisation, zone reading, colour models, counting, cards.

Pure functions over numpy arrays; the only state (cached homography, colour model) is an explicit object
the caller holds.
"""
