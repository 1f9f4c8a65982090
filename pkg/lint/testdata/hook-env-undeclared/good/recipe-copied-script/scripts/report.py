import os
print(os.environ["FIXTURE_UNDECLARED"])
