"""Camera sources, LED strips, displays and buttons: a small protocol, a real and a simulated backend each.

Every driver is imported lazily inside its backend, so ``import hardware`` works on any machine.
"""
