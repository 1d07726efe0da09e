from tvm.script import ir as I, relax as R, tirx as T

x = 1
