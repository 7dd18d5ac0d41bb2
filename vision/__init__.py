"""The camera pipeline: pixels in, :class:`companion.observation.Observation` out.

Knows nothing about legality. Uses OpenCV and NumPy.
"""
