"""Handing each batch's outputs to the runner's sinks: the streams' pinned types and the batch a sink reads."""

from topologies.engine.delivery.output_types import OutputTypes
from topologies.engine.delivery.sink_delivery import HeldOutputs, SinkDelivery

__all__ = ["HeldOutputs", "OutputTypes", "SinkDelivery"]
