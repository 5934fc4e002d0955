# -*- coding: utf-8 -*-

from pyrsistent._pmap import pmap, m, PMap

from pyrsistent._pvector import pvector, v, PVector

from pyrsistent._pset import pset, s, PSet

from pyrsistent._pbag import pbag, b, PBag

from pyrsistent._plist import plist, l, PList

from pyrsistent._pdeque import pdeque, dq, PDeque

from pyrsistent._checked_types import (
    CheckedPMap, CheckedPVector, CheckedPSet, InvariantException, CheckedKeyTypeError,
    CheckedValueTypeError, CheckedType, optional)

from pyrsistent._field_common import (
    field, PTypeError, pset_field, pmap_field, pvector_field)

from pyrsistent._precord import PRecord

from pyrsistent._pclass import PClass, PClassMeta

from pyrsistent._immutable import immutable

from pyrsistent._helpers import freeze, thaw, mutant

from pyrsistent._transformations import inc, discard, rex, ny

from pyrsistent._toolz import get_in


__all__ = ('pmap', 'm', 'PMap',
           'pvector', 'v', 'PVector',
           'pset', 's', 'PSet',
           'pbag', 'b', 'PBag',
           'plist', 'l', 'PList',
           'pdeque', 'dq', 'PDeque',
           'CheckedPMap', 'CheckedPVector', 'CheckedPSet', 'InvariantException', 'CheckedKeyTypeError', 'CheckedValueTypeError', 'CheckedType', 'optional',
           'PRecord', 'field', 'pset_field', 'pmap_field', 'pvector_field',
           'PClass', 'PClassMeta',
           'immutable',
           'freeze', 'thaw', 'mutant',
           'get_in',
           'inc', 'discard', 'rex', 'ny')
