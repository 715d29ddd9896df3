"""The fast engine's graph recorder under symmetry: the search hands it the
representative of every successor it generates, the one renaming the
successor itself gives, so that the recorder need not rename it again."""

import numpy as np

from modelcheck.search.canonical import EVERY_RENAMING, Stabiliser
from modelcheck.engines.base import CheckOptions
from modelcheck.engines.fast import FastChecker
from modelcheck.runtime.limits import Limits
from modelcheck.capabilities.liveness.batched import BatchedGraph
from modelcheck.capabilities.liveness.record import GraphRequest
from modelcheck.language.packing import fingerprints
from support import model


class Checking(BatchedGraph):
    compared = 0

    def expanded(self, parents, fps, instances, words, representatives=None):
        assert representatives is not None
        assert np.array_equal(representatives, fingerprints(self.canonical.words(words)))
        Checking.compared += fps.size
        super().expanded(parents, fps, instances, words, representatives)


class CheckingRequest(GraphRequest):
    def batched(self, m):
        return Checking(m, self)


def test_the_search_hands_the_recorder_each_successors_representative():
    m = model("kip320", Replicas=3)
    for group in (EVERY_RENAMING, Stabiliser(1)):
        Checking.compared = 0
        limits = Limits(max_states=20_000)  # the first levels are enough
        request = CheckingRequest(limits=limits, group=group)
        result = FastChecker().check(m, CheckOptions((), symmetry=group, graph=request, limits=limits))
        assert result.stopped == "max-states" and Checking.compared > result.distinct_states
        request.close()
