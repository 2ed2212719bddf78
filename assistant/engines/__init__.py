"""Rules engines, one per game: plain data and pure functions, no OpenCV, no hardware, no I/O."""
