"""TLS for dflow's clusters and sessions: Dask's ``distributed.Security``.

A secure cluster listens on ``tls://`` only and takes connections only from
holders of a certificate its CA signed. Three ways to have one:

* ``dflow.LocalCluster(security=True)``: a fresh self-signed certificate
  (``Security.temporary()``, needs the ``cryptography`` package), or
  ``security=distributed.Security(...)`` for your own;
* ``dflow cluster --tls-ca-file CA --tls-cert CERT --tls-key KEY``;
* any Dask cluster started with Dask's own TLS options.

Sessions find the credentials for a ``tls://`` target in this order: the
``LocalCluster`` object given as the target (``tf.Session(cluster)``), those
registered for that address with ``set_security`` (a ``LocalCluster`` made
in this process registers its own, so ``tf.Session(cluster.target)`` works),
those registered for every address (``set_security(sec)``), then Dask's
configuration (``DASK_DISTRIBUTED__COMM__TLS__CA_FILE``,
``..._TLS__CLIENT__CERT``, ``..._TLS__CLIENT__KEY``, as for any Dask client).
Every connection a session makes, the direct runs' worker RPCs included,
uses them: nothing travels in plain text.

Importing this module does not import ``distributed``.
"""

from __future__ import annotations

import threading

from dflow.framework import errors

_lock = threading.Lock()
_by_address: dict = {}  # scheduler address -> Security
_default: list = [None]  # Security for every address, or None


def make_security(security):
    """A ``distributed.Security`` from ``True`` (a temporary self-signed one), a ``Security``, or
    None/False (none); ``TypeError`` for anything else."""
    if security is None or security is False:
        return None
    from distributed.security import Security

    if security is True:
        try:
            return Security.temporary()
        except ImportError as e:
            raise ImportError("security=True makes a temporary certificate with the `cryptography` package, "
                              "which is not installed (pip install cryptography), or pass "
                              "security=distributed.Security(tls_ca_file=..., tls_client_cert=..., ...)") from e
    if isinstance(security, Security):
        return security
    raise TypeError(f"security must be True, None or a distributed.Security, got {type(security).__name__}")


def security_from_files(ca_file: str, cert: str, key: str | None = None):
    """A ``Security`` that requires TLS, with one certificate for scheduler, workers and clients."""
    from distributed.security import Security

    return Security(tls_ca_file=ca_file, tls_scheduler_cert=cert, tls_scheduler_key=key, tls_worker_cert=cert,
                    tls_worker_key=key, tls_client_cert=cert, tls_client_key=key, require_encryption=True)


def set_security(security=None, address: str | None = None, *, ca_file: str | None = None,
                 cert: str | None = None, key: str | None = None) -> None:
    """Registers the TLS credentials sessions use to reach ``address`` (every address if None).

    ``security``: a ``distributed.Security``; or give ``ca_file``, ``cert`` and
    ``key`` (PEM files, the certificate used by scheduler, workers and
    clients alike). ``set_security(None)`` removes the registration.

    >>> set_security(None)  # nothing registered: sessions use Dask's configuration
    """
    if ca_file is not None or cert is not None:
        if security is not None:
            raise ValueError("set_security: give either a Security or ca_file/cert/key, not both")
        if ca_file is None or cert is None:
            raise ValueError("set_security: ca_file and cert are both needed (key too unless cert holds it)")
        security = security_from_files(ca_file, cert, key)
    elif security is not None:
        security = make_security(security)
    with _lock:
        if address is None:
            _default[0] = security
        elif security is None:
            _by_address.pop(address, None)
        else:
            _by_address[address] = security


def security_for(target):
    """The ``Security`` for a session target (a ``LocalCluster``-like object or an address), or None
    (Dask then reads its configuration)."""
    own = getattr(target, "security", None)
    if own is not None:
        return own
    address = getattr(target, "target", target)
    with _lock:
        return _by_address.get(address, _default[0])


def has_client_credentials() -> bool:
    """Whether Dask's configuration gives clients TLS credentials (``distributed.comm.tls``)."""
    from distributed.security import Security

    return Security().get_connection_args("client").get("ssl_context") is not None


def connect_error(address: str, e: BaseException, timeout_s: float) -> errors.UnavailableError:
    """The ``UnavailableError`` for a failed connection, saying what TLS needs where it applies."""
    text = str(e) or type(e).__name__
    if address.startswith("tls://"):
        text += (" (a tls:// scheduler needs this client's certificate: tf.Session(cluster) with the "
                 "LocalCluster, dflow.cluster.set_security(...), or Dask's distributed.comm.tls configuration)")
    return errors.UnavailableError(
        None, None, f"Could not connect to the Dask scheduler at {address} within {timeout_s:g} s: {text}")
