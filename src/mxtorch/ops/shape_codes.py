"""MXNet's Reshape special codes, shared by ``Reshape`` and ``NDArray.reshape``.

Codes: ``0`` copies the input dimension, ``-1`` is inferred from the rest,
``-2`` copies all remaining input dimensions, ``-3`` merges the next two input
dimensions, ``-4`` splits one input dimension into the next two values (one of
which may be -1).  With ``reverse=True`` the codes are matched from the right.
"""
from __future__ import annotations

import math

from ..base import MXNetError, MXNetValueError

__all__ = ["infer_reshape"]


def infer_reshape(input_shape, codes, reverse=False, op_name="Reshape"):
    """The output shape for ``input_shape`` under MXNet reshape ``codes``.

    Raises MXNetError naming ``op_name`` when the codes do not fit the input.
    """
    input_shape = tuple(input_shape)
    codes = tuple(int(c) for c in codes)
    if reverse:
        result = infer_reshape(input_shape[::-1], _reverse_codes(codes), False, op_name)
        return tuple(result[::-1])
    output = []
    infer_index = None
    position = 0
    index = 0
    while index < len(codes):
        code = codes[index]
        if code > 0:
            output.append(code)
            position += 1
        elif code == 0:
            if position >= len(input_shape):
                raise MXNetError(f"{op_name}: code 0 at position {index} has no input dimension "
                                 f"to copy (input shape {input_shape}, target {codes})")
            output.append(input_shape[position])
            position += 1
        elif code == -1:
            if infer_index is not None:
                raise MXNetError(f"{op_name}: only one -1 is allowed in the target shape {codes}")
            infer_index = len(output)
            output.append(-1)
            position += 1
        elif code == -2:
            output.extend(input_shape[position:])
            position = len(input_shape)
        elif code == -3:
            if position + 1 >= len(input_shape):
                raise MXNetError(f"{op_name}: code -3 needs two input dimensions at position {position} "
                                 f"(input shape {input_shape}, target {codes})")
            output.append(input_shape[position] * input_shape[position + 1])
            position += 2
        elif code == -4:
            if index + 2 >= len(codes) or position >= len(input_shape):
                raise MXNetError(f"{op_name}: code -4 needs an input dimension and two values after it "
                                 f"(input shape {input_shape}, target {codes})")
            whole = input_shape[position]
            first, second = codes[index + 1], codes[index + 2]
            if first == -1 and second == -1:
                raise MXNetError(f"{op_name}: code -4 cannot split into -1 and -1")
            if first == -1:
                first = whole // second if second else 0
            if second == -1:
                second = whole // first if first else 0
            if first * second != whole:
                raise MXNetError(f"{op_name}: code -4 cannot split dimension {whole} into {first} x {second}")
            output.extend([first, second])
            position += 1
            index += 2
        else:
            raise MXNetError(f"{op_name}: invalid code {code} in target shape {codes}")
        index += 1
    total = math.prod(input_shape)
    if infer_index is not None:
        rest = math.prod(d for i, d in enumerate(output) if i != infer_index)
        if rest == 0 or total % rest:
            raise MXNetError(f"{op_name}: cannot infer -1 in target shape {codes} for input shape {input_shape}")
        output[infer_index] = total // rest
    if math.prod(output) != total:
        raise MXNetValueError(f"{op_name}: target shape {codes} gives {tuple(output)} with "
                         f"{math.prod(output)} elements, the input {input_shape} has {total}")
    return tuple(output)


def _reverse_codes(codes):
    """Reverse a code list keeping each ``-4 a b`` group's split order consistent."""
    groups = []
    index = 0
    while index < len(codes):
        if codes[index] == -4:
            groups.append((-4, codes[index + 2], codes[index + 1]))
            index += 3
        else:
            groups.append((codes[index],))
            index += 1
    result = []
    for group in reversed(groups):
        result.extend(group)
    return tuple(result)
