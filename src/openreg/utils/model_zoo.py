"""``openreg.utils.model_zoo``: ``load_url``, the older name of ``openreg.hub.load_state_dict_from_url``.

>>> import openreg.utils.model_zoo, openreg.hub
>>> openreg.utils.model_zoo.load_url is openreg.hub.load_state_dict_from_url
True
"""
from ..hub import load_state_dict_from_url as load_url  # noqa: F401
