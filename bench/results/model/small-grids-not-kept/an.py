#!/usr/bin/env python3
"""The analytic model alone (no learned correction) on every stencil recording of each model-residuals.csv given."""
import sys

import refit

for path in sys.argv[1:]:
    print(path, "analytic: " + refit.summary(refit.analytic_figures(refit.load(path))))
