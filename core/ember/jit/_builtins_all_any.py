"""all() and any() in scripted code over a list (a generator expression argument is compiled as the list
comprehension it would fill), each item tested for truth as Python tests it."""
from typing import List


def all_(items: List[bool]) -> bool:
    for item in items:
        if not item:
            return False
    return True


def any_(items: List[bool]) -> bool:
    for item in items:
        if item:
            return True
    return False
