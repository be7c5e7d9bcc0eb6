"""Reference solutions, one module per exercise (``pytest exercises --solutions`` checks them).

Try the exercise first: reading a solution teaches far less than writing one.
"""
