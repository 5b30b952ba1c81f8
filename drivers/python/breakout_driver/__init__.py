"""breakout driver kit: wrap any sandbox (booter object) as a driver-protocol-v1 server (stdlib only)."""
from .protocol import (PROTOCOL_VERSION, ExecResult, Policy, ProtocolError, Session, compose_env,
                       normalise_result)
from .proc import drain
from .server import DriverServer, host_platform, serve

__all__ = ["PROTOCOL_VERSION", "DriverServer", "ExecResult", "Policy", "ProtocolError", "Session",
           "compose_env", "drain", "host_platform", "normalise_result", "serve"]
__version__ = "1.0.0"
