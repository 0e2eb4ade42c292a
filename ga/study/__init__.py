"""Studies: many runs of one or more configs over many seeds, scored held out, summarised with statistics.

A study sits above the runs: it runs ordinary run directories through
:mod:`ga.evolution.run`, scores their tables with :mod:`ga.analysis.evaluation`
and compares the configs with :mod:`ga.analysis.comparison`. The study file
is :mod:`ga.study.schema`, the study directory :mod:`ga.study.layout`, the
scoring :mod:`ga.study.measures`, the running :mod:`ga.study.runner`, the
tables :mod:`ga.study.summary` and the figures :mod:`ga.study.figures`.
"""
