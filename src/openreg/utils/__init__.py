"""``openreg.utils``: backend registration helpers, storage hooks, tensor metadata and dispatch modes."""
from ..storage import set_storage_create_hook  # noqa: F401
from ..devices import privateuse1_name as get_privateuse1_backend_name  # noqa: F401
from . import dispatch_mode  # noqa: F401
