"""The neural acquisition over control sets (MetaBO-style, meta-trained with PPO)."""
