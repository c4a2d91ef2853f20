"""agentd package."""
