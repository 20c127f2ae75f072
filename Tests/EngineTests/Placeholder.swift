// Tests of this target are added by the issue that builds its module.
