"""Geometry for the layout tests: do two drawn text boxes overlap, is a point inside a
sector. A box is the four corners of a (possibly rotated) rectangle."""

from __future__ import annotations

from collections.abc import Sequence

Point = tuple[float, float]


def _axes(poly: Sequence[Point]) -> list[Point]:
    out = []
    for i, (x1, y1) in enumerate(poly):
        x2, y2 = poly[(i + 1) % len(poly)]
        out.append((y1 - y2, x2 - x1))
    return out


def overlap_depth(a: Sequence[Point], b: Sequence[Point]) -> float:
    """How far two convex polygons overlap along their best separating axis, in the
    polygons' units; 0 or less means they do not overlap (separating axis theorem)."""
    depth = float("inf")
    for ax, ay in _axes(a) + _axes(b):
        norm = (ax * ax + ay * ay) ** 0.5
        if norm == 0:
            continue
        pa = [(x * ax + y * ay) / norm for x, y in a]
        pb = [(x * ax + y * ay) / norm for x, y in b]
        depth = min(depth, min(max(pa), max(pb)) - max(min(pa), min(pb)))
    return depth


def overlapping(boxes: Sequence[tuple[str, Sequence[Point]]], tolerance: float = 0.5) -> list[tuple[str, str, float]]:
    """Every pair of boxes that overlap by more than ``tolerance``."""
    found = []
    for i, (ta, a) in enumerate(boxes):
        for tb, b in boxes[i + 1:]:
            d = overlap_depth(a, b)
            if d > tolerance:
                found.append((ta, tb, d))
    return found


def inside(point: Point, poly: Sequence[Point]) -> bool:
    """Whether a point lies inside a polygon (ray casting)."""
    x, y = point
    hit = False
    for i, (x1, y1) in enumerate(poly):
        x2, y2 = poly[(i + 1) % len(poly)]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            hit = not hit
    return hit


def centre(box: Sequence[Point]) -> Point:
    return sum(x for x, _ in box) / len(box), sum(y for _, y in box) / len(box)
