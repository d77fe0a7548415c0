"""The REST API (DESIGN §8): DRF views and serializers over the services and the read layer."""
