"""The assertions of a shell test, in Python: expect.py PRELUDE ASSERTIONS [ARG...].

PRELUDE is Python that reads what the test made (`args` are the ARGs) into names; ASSERTIONS is Python
that calls expect(ok, what) with them. Every failed expectation is printed, indented; the exit status is
1 when one failed, else 0.
"""
import sys

problems = []


def expect(ok, what):
    if not ok:
        problems.append(what)


scope = {"expect": expect, "args": sys.argv[3:]}
exec(sys.argv[1], scope)
exec(sys.argv[2], scope)
for problem in problems:
    print("  " + str(problem))
sys.exit(1 if problems else 0)
