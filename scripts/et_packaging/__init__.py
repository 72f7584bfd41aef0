"""The packaging of the SDK distribution: one model of what the builder makes, and the steps that make it.

Modules (each imports only those above it, and none imports a driver):
  model         components.toml (the components, their files and packages), the project version and SONAME suffix,
                the file layout of each package format and the classification of an artifact's files by component,
                the architectures (ARCHES, SUBDIRS) and the CPython matrix (PYTHONS)
  reproducible  SOURCE_DATE_EPOCH and the deterministic rewrite of a .conda file (normalize_conda)
  cuda          the CUDA toolchain here (cuda_toolchain_missing) and the CMake tree the executorch-cuda wheel and
                conda package share
  interpreters  the CPython interpreters of the matrix, the build venvs made from them, running build commands
  cross         cross-compiling executorch._C (the target's pyconfig.h, the CMake definitions)
  wheels        staging the SDK components, building executorch._C per CPython, retagging wheels (auditwheel)
  recipe        recipe/recipe.yaml rendered from components.toml, and the check of the build inputs
  conda         building, checking (read_package) and indexing the conda packages of one architecture

The drivers are scripts/build_wheels.py, scripts/build_conda.py and scripts/builder_report.py (run by
scripts/build_sdk.sh): each parses its command line and runs these steps in order. The tests import the modules
(with scripts/ on sys.path). The package is not called `packaging`: that name would shadow PyPI's `packaging`, which
auditwheel, scikit-build-core and pytest import, for every script run from scripts/.
"""
