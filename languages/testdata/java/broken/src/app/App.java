package app;

import java.util.ArrayList;
import java.util.List;

public class App {
    public static void main(String[] args) {
        List names = new ArrayList();
        names.add("duke");
        int count = "three";
        System.out.println(names + " " + count + missing);
    }
}
