"""Test fixture for the python.test tool."""


def add(a, b):
    return a + b


def sub(a, b):
    return a + b  # wrong on purpose: the fixture needs a failing test
