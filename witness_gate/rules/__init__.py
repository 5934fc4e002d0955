"""Pure decisions: the plan, the three tables, the verdict. They import only model/ and config/."""
