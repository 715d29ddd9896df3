"""``modelcheck simulate``: random walks for models too big to exhaust.

walks.py runs batched walks in process, swarm.py runs them on Spark
executors, shrink.py shortens a violating behaviour, engine.py puts these
behind the engines' interface and command.py is the command line.
"""
