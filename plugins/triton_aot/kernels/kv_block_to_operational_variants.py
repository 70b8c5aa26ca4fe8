"""The variants of kv_block_to_operational (manifest.py collects them): those of kv_cache_variants.py,
whose kernel (kv_cache.py) the four KV-cache ops share."""
from kv_cache_variants import variants

VARIANTS = variants("kv_block_to_operational")
