-- Returns 2: neither pass (1) nor block (0).
return 2
