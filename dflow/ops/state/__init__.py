"""Stateful resources: variables and scopes, initializers, queues, accumulators, tensor arrays, lookup tables."""
