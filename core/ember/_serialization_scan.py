"""Lists the globals an ember.save file's pickle names, without running it (pickletools reads the
opcodes): what get_unsafe_globals_in_checkpoint reports before one decides what to allowlist."""
import io
import pickletools

_STRING_OPS = {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING"}


def globals_in_pickle(data):
    """The set of 'module.name' strings that GLOBAL, STACK_GLOBAL and INST opcodes in data refer to."""
    found = set()
    stack = []  # the last strings pushed (what STACK_GLOBAL pops), memo entries resolved
    memo = {}
    next_memo = 0
    for op, arg, _ in pickletools.genops(io.BytesIO(data)):
        name = op.name
        if name in ("GLOBAL", "INST"):
            module, _, attr = arg.partition(" ")
            found.add(f"{module}.{attr}")
        elif name == "STACK_GLOBAL":
            if len(stack) >= 2 and isinstance(stack[-1], str) and isinstance(stack[-2], str):
                found.add(f"{stack[-2]}.{stack[-1]}")
            stack = stack[:-2]
        elif name in _STRING_OPS:
            stack.append(arg if isinstance(arg, str) else str(arg))
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = stack[-1] if stack else None
        elif name == "MEMOIZE":
            memo[next_memo] = stack[-1] if stack else None
            next_memo += 1
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo.get(arg))
        else:
            stack.append(None)  # any other push or pop: not a string STACK_GLOBAL can use
        if len(stack) > 8:
            del stack[:-8]
    return found
