#!/usr/bin/env python3
"""Fails when a file includes a project header from a layer it may not see (docs/architecture.md).

Usage: check_layers.py SOURCE_DIR, or check_layers.py --self-test (checks that a planted violation is found). Reads every .hpp/.cpp under model/, search/, results/ and src/ and checks each
`#include "..."` of a project header against LAYERS: a folder may include headers of its own folder and of the
folders it lists. The longest matching folder prefix decides a file's layer. An include is resolved as the compiler
resolves a quoted include: first beside the including file (so `"../src/cli/x.hpp"` or `"detail.hpp"` count as
the file they name), then from the source root; an include that climbs out of the source root is a violation. Prints one line per violation
("src/scenario/x.cpp:12 includes src/planning/y.hpp: src/scenario may not see src/planning") and exits 1.
"""
import os
import re
import sys

# model/ has sub-layers, lowest first; each may include its own folder and the ones before it (docs/architecture.md,
# "model/ inside"): spec (value types) -> kernels (counts, FLOPs, kernel times) -> comm (collectives, links) ->
# parallel (layouts, stages, recompute, fp8 placement) -> memory -> moe -> step (one island's step) -> job (the run,
# goodput, DiLoCo, evaluate).
MODEL_SUBLAYERS = ['model/spec', 'model/kernels', 'model/comm', 'model/parallel', 'model/memory', 'model/moe',
                   'model/step', 'model/job']
# folder -> folders it may include (besides itself). Dependencies point one way: src -> {search, results} -> model.
MODEL = list(MODEL_SUBLAYERS)
LAYERS = {
    # A source file directly in model/ has no sub-layer: check() reports it.
    'model': [],
    **{layer: MODEL_SUBLAYERS[:i] for i, layer in enumerate(MODEL_SUBLAYERS)},
    'search': MODEL,
    'results': MODEL,
    'results/front': MODEL + ['results'],
    'results/files': MODEL + ['results', 'results/front'],
    'results/report': MODEL + ['results', 'results/front', 'results/files'],
    'results/export': MODEL + ['results', 'results/front'],
    'src/network': MODEL,
    'src/scenario': MODEL + ['src/network'],
    # results/export: a framework search keeps the plans that framework's export writes (results/export/framework.hpp).
    'src/planning': MODEL + ['search', 'results', 'results/front', 'results/files', 'results/export', 'src/scenario'],
    'src/import': MODEL + ['src/scenario'],
    'src/text': MODEL + ['search', 'results', 'results/front', 'src/scenario', 'src/planning'],
    'src/sweep': MODEL + ['search', 'results', 'results/front', 'results/files', 'results/report', 'src/scenario',
                          'src/planning', 'src/text'],
    'src/validation': MODEL + ['results', 'results/files', 'src/scenario', 'src/text'],
    'src/nightly': MODEL + ['results', 'results/front', 'results/files', 'results/report', 'src/scenario',
                            'src/planning', 'src/text'],
    'src/distributed': MODEL + ['search', 'results', 'results/front', 'results/report', 'src/scenario', 'src/planning',
                                'src/nightly'],
    'src/python': MODEL + ['search', 'results', 'results/front', 'results/files', 'src/scenario', 'src/planning',
                           'src/text'],
    'src/cli': MODEL + ['search', 'results', 'results/front', 'results/files', 'results/report', 'results/export',
                        'src/scenario', 'src/planning', 'src/text', 'src/sweep', 'src/validation', 'src/nightly',
                        'src/network', 'src/distributed', 'src/import'],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    folder = os.path.dirname(path)
    best = None
    for layer in LAYERS:
        if folder == layer or folder.startswith(layer + '/'):
            if best is None or len(layer) > len(best):
                best = layer
    return best


def resolve(root, path, include):
    """The root-relative path a quoted include names: beside the including file if such a file exists there (the
    compiler's first search place), else from the root. None when the name leaves the root."""
    beside = os.path.normpath(os.path.join(os.path.dirname(path), include))
    if not beside.startswith('..') and os.path.isfile(os.path.join(root, beside)):
        return beside
    from_root = os.path.normpath(include)
    if from_root.startswith('..') or os.path.isabs(from_root):
        # Climbing above the root from the including file's folder still names a file inside the root when the
        # include was written relative to that folder ("../../src/x.hpp" from model/a/b.cpp).
        return None if beside.startswith('..') or os.path.isabs(beside) else beside
    return from_root


def check(root):
    violations, files = [], 0
    for top in ('model', 'search', 'results', 'src'):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith(('.hpp', '.cpp')):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                layer = layer_of(path)
                if layer == 'model':
                    violations.append(f'{path}: a model/ source file must sit in one of the sub-layers {MODEL_SUBLAYERS}')
                    continue
                if layer is None:
                    violations.append(f'{path}: folder has no layer in tests/layers/check_layers.py')
                    continue
                files += 1
                with open(os.path.join(root, path), encoding='utf-8') as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        resolved = resolve(root, path, m.group(1))
                        if resolved is None:
                            violations.append(f'{path}:{number} includes {m.group(1)}: climbs out of the source tree')
                            continue
                        target = layer_of(resolved)
                        if target is None or target == layer or target in LAYERS[layer]:
                            continue
                        shown = m.group(1) if resolved == m.group(1) else f'{m.group(1)} (= {resolved})'
                        violations.append(f'{path}:{number} includes {shown}: {layer} may not see {target}')
    return files, violations


def self_test():
    """A model/ header that includes src/, a search/ file that includes results/, relative includes that reach
    src/ and results/ from model/ and search/, and one that climbs out of the tree must all be reported; relative
    includes within a layer and a system include are not."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        planted = {'model/spec/a.hpp': '#include "src/cli/cli.hpp"\n',
                   'search/b.cpp': '#include "results/columns.hpp"\n',
                   'src/cli/ok.cpp': '#include "model/spec/a.hpp"\n#include <vector>\n#include "cli.hpp"\n',
                   'src/cli/cli.hpp': '#include "../../model/spec/a.hpp"\n',
                   'model/kernels/rel.cpp': '#include "../../src/cli/cli.hpp"\n#include "../spec/a.hpp"\n'
                                            '#include "./rel.hpp"\n#include "model/spec/a.hpp"\n',
                   'model/kernels/rel.hpp': '',
                   'model/spec/up.hpp': '#include "model/step/s.hpp"\n#include "../kernels/rel.hpp"\n',
                   'model/step/s.hpp': '#include "model/kernels/rel.hpp"\n#include "model/spec/a.hpp"\n',
                   'model/flat.cpp': '',
                   'search/deep/c.cpp': '#include "../../results/columns.hpp"\n#include "../../../outside.hpp"\n',
                   'results/columns.hpp': ''}
        for path, text in planted.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), 'w', encoding='utf-8') as f:
                f.write(text)
        files, violations = check(root)
        expected = sorted([
            'model/spec/a.hpp:1 includes src/cli/cli.hpp: model/spec may not see src/cli',
            'search/b.cpp:1 includes results/columns.hpp: search may not see results',
            'model/kernels/rel.cpp:1 includes ../../src/cli/cli.hpp (= src/cli/cli.hpp): model/kernels may not see src/cli',
            'model/spec/up.hpp:1 includes model/step/s.hpp: model/spec may not see model/step',
            'model/spec/up.hpp:2 includes ../kernels/rel.hpp (= model/kernels/rel.hpp): model/spec may not see model/kernels',
            "model/flat.cpp: a model/ source file must sit in one of the sub-layers " + str(MODEL_SUBLAYERS),
            'search/deep/c.cpp:1 includes ../../results/columns.hpp (= results/columns.hpp): search may not see results',
            'search/deep/c.cpp:2 includes ../../../outside.hpp: climbs out of the source tree'])
        if files != 10 or sorted(violations) != expected:
            print('self-test failed:', files, violations)
            return 1
    print('self-test passed: planted violations are reported')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    files, violations = check(sys.argv[1])
    for v in violations:
        print(v)
    print(f'{files} files checked, {len(violations)} layering violations')
    return 1 if violations or files == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
