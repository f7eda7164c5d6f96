"""``openreg.utils``: backend registration helpers, storage hooks, tensor metadata, dispatch modes and safetensors
files."""
from ..storage import set_storage_create_hook  # noqa: F401
from . import (
    _pytree,  # noqa: F401  (torch.utils._pytree)
    backend_registration,  # noqa: F401
    dispatch_mode,  # noqa: F401
    dlpack,  # noqa: F401  (torch.utils.dlpack)
    safetensors,  # noqa: F401  (needs the optional 'safetensors' package only when used)
)
from .backend_meta import get_tensor_metadata, set_tensor_metadata  # noqa: F401
from .backend_registration import (  # noqa: F401
    generate_methods_for_privateuse1_backend,
    get_privateuse1_backend_name,
    rename_privateuse1_backend,
)
from .swap_tensors import swap_tensors  # noqa: F401
