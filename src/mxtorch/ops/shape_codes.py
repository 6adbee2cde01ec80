"""MXNet's Reshape special codes, shared by ``Reshape`` and ``NDArray.reshape``.

Codes: ``0`` copies the input dimension, ``-1`` is inferred from the rest,
``-2`` copies all remaining input dimensions, ``-3`` merges the next two input
dimensions, ``-4`` splits one input dimension into the next two values (one of
which may be -1).  With ``reverse=True`` the codes are matched from the right: MXNet 1.9.1 reverses
the code list and the input shape, so a ``-4`` comes after its two values
(``(16, 4, -4)`` splits the last dimension into ``(16, 4)``).
"""
from __future__ import annotations

import math

from ..base import MXNetError, MXNetValueError

__all__ = ["infer_reshape"]


def infer_reshape(input_shape, codes, reverse=False, op_name="Reshape", partial=False):
    """The output shape for ``input_shape`` under MXNet reshape ``codes``.

    With ``partial=True`` a 0 in ``input_shape`` is an unknown dimension (shape inference):
    an output dimension that depends on it (copied by 0, merged by -3, split by -4 with a -1,
    or the -1 itself) is 0 too, as MXNet 1.9.1's ``InferReshapeShape`` leaves it unknown.
    Raises MXNetError naming ``op_name`` when the codes do not fit the input.
    """
    input_shape = tuple(input_shape)
    codes = tuple(int(c) for c in codes)
    if reverse:
        result = infer_reshape(input_shape[::-1], codes[::-1], False, op_name, partial)
        return tuple(result[::-1])
    unknown = partial and 0 in input_shape
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
            if first * second != whole and not (partial and whole == 0):
                raise MXNetError(f"{op_name}: code -4 cannot split dimension {whole} into {first} x {second}")
            output.extend([first, second])
            position += 1
            index += 2
        else:
            raise MXNetError(f"{op_name}: invalid code {code} in target shape {codes}")
        index += 1
    if unknown:
        if infer_index is not None:
            output[infer_index] = 0
        return tuple(output)
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
